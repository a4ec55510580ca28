"""The command line: the dashboard's entry point, its start-up, and the status, surveys, metrics,
web and demo commands.
"""
