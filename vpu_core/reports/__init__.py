"""Everything that turns an inspection into something to read: JSON, text, one-file HTML."""
