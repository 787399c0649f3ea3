"""`gen export`: the built dataset, split leak-free, in the format a trainer reads."""
