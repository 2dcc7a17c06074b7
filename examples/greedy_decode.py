"""Greedy decoding with a toy recurrent language model: a data-dependent loop with `break`.

The decoder stops at the end-of-sequence token; the number of steps depends on the values.
Run: python examples/greedy_decode.py
"""

import numpy as np

import autograph as ag

EOS = 0


@ag.function
def greedy_decode(h0, embeddings, W_h, W_e, W_out, max_len):
    """Emits tokens until EOS or max_len; returns (tokens, length, total log-probability)."""
    tokens = np.zeros(max_len, dtype=np.int64)
    h = h0
    token = 1  # start-of-sequence
    length = 0
    log_prob = 0.0
    for step in range(max_len):
        h = np.tanh(W_h @ h + W_e @ embeddings[token])
        logits = W_out @ h
        logits = logits - np.max(logits)
        probs = np.exp(logits) / np.sum(np.exp(logits))
        token = np.argmax(probs)
        log_prob += np.log(probs[token])
        tokens[step] = token
        length += 1
        if token == EOS:
            break
    return tokens, length, log_prob


def make_inputs(seed=3, vocab=12, dim=16, max_len=40):
    rng = np.random.default_rng(seed)
    h0 = rng.standard_normal(dim) * 0.5
    embeddings = rng.standard_normal((vocab, dim))
    W_h = rng.standard_normal((dim, dim)) * (0.8 / np.sqrt(dim))
    W_e = rng.standard_normal((dim, dim)) / np.sqrt(dim)
    W_out = rng.standard_normal((vocab, dim))
    return h0, embeddings, W_h, W_e, W_out, np.int64(max_len)


if __name__ == "__main__":
    from _main import run_example
    run_example(greedy_decode, make_inputs())
