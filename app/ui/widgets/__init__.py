"""Reusable widgets of the main window: state pill, level meter, chat bubbles, talk button, metrics panel.

Owns painting and local widget state only; nothing here talks to the voice loop.
"""
