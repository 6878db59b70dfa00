#!/usr/bin/env bash
# Creates (or reuses) the pylance oracle's virtual environment: setup-venv.sh <venv dir>.
# Run by the it module's build (generate-test-resources). The environment is rebuilt only when
# requirements.txt changes: a stamp file in the venv holds the requirements' checksum.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$1"
req="$here/requirements.txt"
sum="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$venv/.requirements.sha256" && "$(cat "$venv/.requirements.sha256")" == "$sum" ]]; then
  exit 0
fi
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null; then
  echo "setup-venv.sh: $python not found; the pylance interop tests need Python 3.9+ with venv" >&2
  exit 1
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --disable-pip-version-check --no-input -q -r "$req"
echo "$sum" > "$venv/.requirements.sha256"
echo "setup-venv.sh: pylance environment ready in $venv" >&2
