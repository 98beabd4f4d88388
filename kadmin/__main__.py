from kadmin.cli import main

main()
