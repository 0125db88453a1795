"""Write paths every app shares."""
