"""Baevsky's stress index computed with numpy, independently of VitalBridge: reads a JSON list of series of NN
intervals (ms) on stdin, prints a JSON list of {"mode" (s), "amplitude" (%), "range" (s), "index"}.

The histogram has 50 ms bins on multiples of 50 ms, each [low, low + 50); numpy's argmax picks the first, shortest,
of equally full bins."""
import json
import sys

import numpy as np

results = []
for series in json.load(sys.stdin):
    nn = np.asarray(series, dtype=float)
    # one bin past the longest interval, so that numpy's closed last bin holds nothing
    edges = np.arange(np.floor(nn.min() / 50) * 50, (np.floor(nn.max() / 50) + 2) * 50 + 1, 50)
    counts, _ = np.histogram(nn, bins=edges)
    fullest = int(np.argmax(counts))
    mode = (edges[fullest] + 25) / 1000
    amplitude = counts[fullest] / nn.size * 100
    spread = (nn.max() - nn.min()) / 1000
    results.append({"mode": mode, "amplitude": amplitude, "range": spread, "index": amplitude / (2 * mode * spread)})
print(json.dumps(results))
