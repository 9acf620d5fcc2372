"""The window sizes the browser walks use: a laptop, and a phone held upright."""
WIDE, PHONE = (1280, 900), (390, 844)
