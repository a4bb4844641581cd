# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# One way to make the project's virtual environments; sourced by scripts/test.sh,
# scripts/demo.sh and bench/setup.sh.
#
#   ik_node_venv VENV LABEL [INSTALL_ARGS...]
#   ik_node_install VENV [INSTALL_ARGS...]
#
# ik_node_venv creates VENV with $PYTHON (default python3) if it does not exist, installs
# INSTALL_ARGS (e.g. -r requirements-test.txt, or package names; none: nothing) and then
# ik_node itself, editable, with its install_requires. LABEL starts each progress line.
# ik_node_install installs INSTALL_ARGS into VENV.
#
# The installs go through uv (pip installs it into the venv first), in a third of pip's time
# (the test tools: 30 s with pip, 11 s with uv, on 2 cores) and to the same versions. uv reads
# PyPI and its own settings (UV_INDEX_URL, uv.toml, UV_COMPILE_BYTECODE), not pip's
# configuration. It compiles no bytecode at install unless told (bench/setup.sh does): the
# scripts that run processes let Python write it at each module's first import instead.

ik_node_install() {
    local venv="$1"
    shift
    if [ ! -x "$venv/bin/uv" ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check uv \
            2> >(grep -v "^WARNING: Location" >&2)
    fi
    "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" "$@"
}

ik_node_venv() {
    local venv="$1" label="$2"
    shift 2
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    if [ ! -x "$venv/bin/python" ]; then
        echo "$label: creating $venv"
        "${PYTHON:-python3}" -m venv "$venv"
    fi
    echo "$label: installing ${*:+$* and }ik_node into $venv (under a minute on a fresh machine)"
    if [ "$#" -gt 0 ]; then
        ik_node_install "$venv" "$@"
    fi
    ik_node_install "$venv" -e "$root"
}
