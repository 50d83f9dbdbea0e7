"""Spreading work over workers: threads, processes on this machine, or Ray actors on a cluster.

Every parallel command (``mlbench run``, ``mlbench score``, ``ablate``) works the same way: the
driver (the process the command runs in) owns the output folder and is the only writer of its
records; workers get one unit of work at a time (a task to generate, a sample to execute, a cell
to run) and send back plain data, which the driver writes as it arrives, in any order (a unit's
own journal, such as a checked task's rounds, is written by the worker running it). So a run
folder is written exactly as by a one-worker run, and resumes exactly the same way.

- ``pool``: the pools (serial, threads, processes) and ``fan_out``, the driver's loop that keeps
  them busy, retries a unit whose worker died (``RETRIES`` times) and then reports it lost;
- ``ray_pool``: the same pool as Ray actors (``--ray local | auto | ray://host:port``);
- ``jobs``: what a worker runs for each command, and which pool and how many workers it gets
  (threads for API models, processes for local models and the executor, never more local model
  copies than ``scale.max_local_models``).

Nothing here is imported by ``import ragcode``; Ray is imported only when ``--ray`` is given.
"""
