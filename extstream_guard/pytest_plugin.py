"""pytest plugin: ``--extstream-guard=raise|warn|off`` (work in progress)."""
