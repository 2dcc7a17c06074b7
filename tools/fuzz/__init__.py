"""The differential fuzzer of graph mode: random valid programs over NumPy scalars and 1-d
arrays (`generator`), run as plain Python, through `ag.to_graph` and through `ag.function` on
each backend and classified (`compare`), in worker processes with a per-program timeout
(`workers`), shrunk to small repros (`minimise`). The long run is tools/fuzz_graph_mode.py;
a fixed-seed subset runs in tests/test_fuzz.py."""
