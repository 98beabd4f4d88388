"""Fleet-wide reports (``--spark``, ``--fleet``, ``--from``; docs/fleet.md).

- ``tables``: the columns of every row table and report, declared once;
- ``rows``: documents and model values -> rows; ``files``: ``--from DIR``;
  ``inventory``: ``--fleet FILE``; ``collect``: live collection tasks;
- ``local``: the reports in plain Python (the reference); ``spark``: the same on Spark,
  ``arrow``: the pyarrow reader its tasks use; ``per_file``: the log-dirs reports of one file,
  computed in the task that reads it;
- ``report``: a report's rows in their total order; ``output``: Parquet, JSON and the chart;
- ``run``: one run, from a ``FleetRequest`` to reports.
"""
