"""`evalrun audit`: check the instrument against a person's reading, with an error bar."""
