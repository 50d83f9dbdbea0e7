"""ragcode.bench: the ML-Bench harness, one module per concept.

- tasks: ``dataset`` (JSONL / parquet / hub loading, the shipped ``dev`` split's keys in
  ``mlbench_dev.json``), ``repo_tasks`` (records that name their repository instead of a
  ``github_id``), ``records`` (field readers the loaders share);
- repositories: ``repos`` (the 14 repositories and their pins; a task's folder and working
  directory under ``--repos``, and the commit check of a task that names its repository), ``prepare`` (clone / verify them);
- contexts: ``settings`` (none / readme / bm25 / ragcode / oracle), ``paper_bm25`` (the paper's
  baseline), ``retrieve`` (``mlbench retrieve``), ``oracle_measure`` (found / coverage);
- runs: ``runner`` (``mlbench run``), ``runfolder`` (writer lock, settings identity, resume),
  ``jsonl`` (append-only files that survive a kill);
- scoring: ``scoring`` (policies by name, the executor choice), ``legacy`` (the official rules),
  ``static_checks``, ``passk`` (positional pass@k and the unbiased estimator), ``evaluate``
  (score a run or an outputs file), ``report`` (per-repository tables).
"""
