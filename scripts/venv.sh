# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# One way to make the project's virtual environments; sourced by scripts/test.sh,
# scripts/demo.sh and bench/setup.sh.
#
#   ik_node_venv VENV LABEL [PIP_ARGS...]
#
# Creates VENV with $PYTHON (default python3) if it does not exist, installs PIP_ARGS (e.g.
# -r requirements-test.txt, or package names; none: nothing) and then ik_node itself,
# editable, with its install_requires. LABEL starts each progress line. pip's
# "WARNING: Location" lines (a config of this machine) are dropped from stderr.

ik_node_venv() {
    local venv="$1" label="$2"
    shift 2
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    if [ ! -x "$venv/bin/python" ]; then
        echo "$label: creating $venv"
        "${PYTHON:-python3}" -m venv "$venv"
    fi
    echo "$label: installing ${*:+$* and }ik_node into $venv (about a minute on a fresh machine)"
    if [ "$#" -gt 0 ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
            2> >(grep -v "^WARNING: Location" >&2)
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root" \
        2> >(grep -v "^WARNING: Location" >&2)
}
