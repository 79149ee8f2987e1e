#!/usr/bin/env bash
# The Kubernetes Job of experiments/kubernetes/ checked against Kubernetes' own schema, offline:
# kubernetes-validate (PyPI; it carries the schemas of every Kubernetes release), pinned, in a
# virtual environment of its own under target/, validates the manifest strictly (an unknown or
# misspelt field fails) against Kubernetes 1.33. A copy with one field misspelt must fail, so a
# validator that passes everything is caught too.
#
#   scripts/k8s-validate.sh
#
# Exits 0 with a "skipped:" line where Python 3 is absent or the package cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.37.0      # kubernetes-validate
kubernetes=1.33.0   # the Kubernetes release the manifest is written for
manifest=experiments/kubernetes/study-job.yaml
venv=target/python/kubernetes-validate-$version
if ! command -v python3 >/dev/null; then
  echo "k8s-validate: skipped: no python3 on PATH to install kubernetes-validate with"
  exit 0
fi
if ! [ -x "$venv/bin/kubernetes-validate" ]; then
  rm -rf "$venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q "kubernetes-validate==$version"; } >/dev/null 2>&1; then
    rm -rf "$venv"
    echo "k8s-validate: skipped: kubernetes-validate==$version could not be installed (python3 -m venv, pip)"
    exit 0
  fi
fi
"$venv/bin/kubernetes-validate" --strict -k "$kubernetes" "$manifest"
bad=$(mktemp --suffix=.yaml)
trap 'rm -f "$bad"' EXIT
sed 's/completionMode:/completionMod:/' "$manifest" > "$bad"
if "$venv/bin/kubernetes-validate" --strict --quiet -k "$kubernetes" "$bad" >/dev/null 2>&1; then
  echo "k8s-validate: a manifest with a misspelt field (completionMod) passed: the validator checks nothing" >&2
  exit 1
fi
echo "k8s-validate: $manifest passed strict validation against Kubernetes $kubernetes (kubernetes-validate $version); a misspelt copy failed"
