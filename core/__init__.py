"""What every app uses; so far, the checks of text and values from outside (core.outside_text)."""
