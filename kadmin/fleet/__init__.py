"""Fleet-wide reports (``--spark``, ``--fleet``, ``--from``; docs/fleet.md).

- ``tables``: the columns of every row table and report, declared once;
- ``rows``: documents and model values -> rows; ``files``: ``--from DIR``;
  ``inventory``: ``--fleet FILE``; ``collect``: live collection tasks;
- ``local``: the reports in plain Python (the reference); ``spark``: the same on Spark,
  ``arrow``: the pyarrow reader its tasks use;
- ``report``: a report's rows in their total order; ``output``: Parquet, JSON and the chart;
- ``run``: one run, from a ``FleetRequest`` to reports.
"""
