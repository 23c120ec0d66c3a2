#!/usr/bin/env bash
# The independent implementations the tests compare VitalBridge with, in a virtual environment of their own at
# .oracles/venv (ignored by git): hrv-analysis 1.0.6 for HRV, bleak 1.1.1, a BlueZ client, for the simulated
# org.bluez service, fhir.resources 8.3.0, whose FHIR R4B models validate the FHIR export, paho-mqtt 2.1.0, the
# subscriber that reads back what the MQTT sink published, and Jinja2 3.1.6 (the version Home Assistant pins), which
# renders the sink's Home Assistant templates. hrv-analysis 1.0.6 declares nolds>=0.6.3 but fails to import with it, so it is installed without
# its declared dependencies, then those are installed with nolds<0.6.3.
# Idempotent: does nothing once the oracles import. Needs python3 with venv (Debian: python3-venv) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.oracles/venv
all="import hrvanalysis, bleak, fhir.resources.R4B.bundle, paho.mqtt.client, jinja2"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$all" 2>/dev/null; then
    exit 0
fi
# a venv made by an earlier version of this script: add what it lacks
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import hrvanalysis" 2>/dev/null; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "bleak==1.1.1" "fhir.resources==8.3.0" \
        "paho-mqtt==2.1.0" "Jinja2==3.1.6"
    "$venv/bin/python" -c "$all"
    exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "hrv-analysis==1.0.6"
"$venv/bin/pip" install --quiet --disable-pip-version-check "nolds<0.6.3" numpy scipy astropy pandas matplotlib
"$venv/bin/pip" install --quiet --disable-pip-version-check "bleak==1.1.1" "fhir.resources==8.3.0" "paho-mqtt==2.1.0" \
    "Jinja2==3.1.6"
"$venv/bin/python" -c "$all"
