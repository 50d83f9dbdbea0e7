"""Answers made from samples: draw, check, choose, fix, repair (checked generation).

``ragcode.answer.pipeline.checked_candidates`` draws the samples (``ragcode.answer.run.Draw``),
checks each with ``ragcode.check``, orders them best first (``ragcode.answer.select``), passes the
first through the fix steps ``generation.fixes`` names (``ragcode.answer.fixes``) and sends what
is left wrong back to the model (``ragcode.answer.repair``), journalled
(``ragcode.answer.journal``) so a killed task resumes. ``ragcode.check`` judges answers; this
package holds every use of the model around it.
"""
