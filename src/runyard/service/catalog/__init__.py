"""The served catalog: each tenant's agents compiled from their specs (one per version), their
tools, middleware, memory and secrets, kept current by following, watching and reloading the
catalog files or the database, and the admin that edits and activates versions."""
