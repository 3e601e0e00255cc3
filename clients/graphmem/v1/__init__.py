"""Generated gRPC stubs for graphmem.v1 (scripts/gen_proto.py)."""
