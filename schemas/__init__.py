"""Arrow schemas of every table taldau writes, with their version (arrives with the Parquet output)."""
