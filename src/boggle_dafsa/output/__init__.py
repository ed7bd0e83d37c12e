"""Every text row and JSON object the commands print, defined once."""
