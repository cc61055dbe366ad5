"""Game-agnostic work on replayed records: archive checks and the accounting of every input, the batch
plan, the review's marks and players' figures, the rows of the tables, annotated records, the analysis
folder and its readers, players across folders; opening books (``book``) and the HTML report
(``report``). It knows the games only through ``base.kind`` and ``games.registry``."""
