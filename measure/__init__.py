"""Measurements of taldau itself, above every layer they measure: benchmarks of the engines and the batch
service (``taldau bench``), the soak under chaos, the capacity of one client and one Redis, how right the
marks and the engines are against deeper references, rollouts and independent programs, and matches
between engines, with the agreement statistics they share (``agreement``) and an opening book's speed on
a synthetic load (``book``). Nothing below imports it; it imports what it measures (games, analysis,
workers)."""
