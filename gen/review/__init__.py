"""A round trip through Label Studio: push documents with the labelers' spans as
predictions, let reviewers correct them, pull the corrections back as gold."""
