"""hrv-analysis's figures for series of NN intervals (ms): reads a JSON list of series on stdin, prints a JSON list
of {"rmssd", "sdnn", "power"}, with get_frequency_domain_features' defaults (Welch, 4 Hz, linear interpolation)."""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from hrvanalysis import get_frequency_domain_features, get_time_domain_features

figures = []
for series in json.load(sys.stdin):
    time = get_time_domain_features(series)
    frequency = get_frequency_domain_features(series)
    figures.append({"rmssd": time["rmssd"], "sdnn": time["sdnn"], "power": frequency["total_power"]})
print(json.dumps(figures))
