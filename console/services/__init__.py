"""Write paths of the lead console."""
