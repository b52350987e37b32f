"""KV-cache swap engine: blocks move between NPU memory and a host slot pool on the KV stream."""
