"""The converter of the shipped calibration tables, one module per source (convert_public.py)."""
