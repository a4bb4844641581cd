# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Read the ``<disable_collisions>`` pairs of an SRDF, and write a matrix out as an SRDF."""

import os
from pathlib import Path
from typing import Iterable, Union
import xml.etree.ElementTree as ET

from ik_node.errors import URDFError

__all__ = ['read_disabled_pairs', 'srdf_text']

SrdfSource = Union[str, os.PathLike]


def _srdf_text(srdf: SrdfSource) -> str:
    if isinstance(srdf, str) and srdf.lstrip().startswith('<'):
        return srdf
    path = Path(srdf)
    try:
        return path.read_text(encoding='utf-8')
    except OSError as exc:
        raise URDFError(f'cannot read SRDF file {str(path)!r}: {exc.strerror}') from exc


def read_disabled_pairs(srdf: SrdfSource) -> dict[frozenset, str]:
    """
    Return {frozenset({link1, link2}): reason} from an SRDF (XML text or file path).

    Only ``<disable_collisions link1=.. link2=.. reason=..>`` is read; groups, states and
    virtual joints play no part in collision checking. URDFError for malformed XML or an
    entry without both links.
    """
    try:
        root = ET.fromstring(_srdf_text(srdf))
    except ET.ParseError as exc:
        raise URDFError(f'malformed SRDF: {exc}') from exc
    out = {}
    for element in root.iter('disable_collisions'):
        a, b = element.get('link1'), element.get('link2')
        if not a or not b:
            raise URDFError('SRDF <disable_collisions> needs link1 and link2, got '
                            f'{dict(element.attrib)}')
        out[frozenset((a, b))] = element.get('reason', '')
    return out


def srdf_text(robot_name: str, disabled: dict[frozenset, str] | Iterable) -> str:
    """Return an SRDF document with one ``<disable_collisions>`` per pair, sorted by name."""
    if not isinstance(disabled, dict):
        disabled = {frozenset(p): '' for p in disabled}
    root = ET.Element('robot', name=robot_name)
    rows = sorted((tuple(sorted(pair)), reason) for pair, reason in disabled.items()
                  if len(pair) == 2)
    for (a, b), reason in rows:
        attrs = {'link1': a, 'link2': b}
        if reason:
            attrs['reason'] = reason
        ET.SubElement(root, 'disable_collisions', attrs)
    ET.indent(root, space='    ')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') \
        + '\n'
