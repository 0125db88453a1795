"""Reads of the lead console: the item browser, an item's detail, the import error report, progress."""
