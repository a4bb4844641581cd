# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The robot as the web view needs it: the IK chain plus the URDF's visual geometry."""

from dataclasses import dataclass
from functools import partial
import os
from pathlib import Path
from typing import cast, List, Optional, Sequence, TYPE_CHECKING, Union

from ik_node.errors import URDFError
from ik_node.model.chain import Chain
from ik_node.model.link_tree import RobotTree
from ik_node.resources import DEMO_ARM, share_path
import numpy as np

if TYPE_CHECKING:
    import yourdfpy

__all__ = ['RobotModel', 'load_robot', 'demo_arm_path']


@dataclass
class RobotModel:
    """
    The chain solved for and the display model of the same URDF.

    urdf: the yourdfpy model with its visual scene; joint_slots (n,): where each chain joint
    sits in the display's actuated-joint vector; warnings: problems that did not stop loading
    (a missing mesh), shown on the page.
    """

    chain: Chain
    urdf: 'yourdfpy.URDF'
    path: Path
    joint_slots: np.ndarray
    warnings: List[str]

    def display_cfg(self, q: np.ndarray) -> np.ndarray:
        """Return the display model's actuated joint vector for chain joint values q (n,)."""
        cfg = np.zeros(len(self.urdf.actuated_joint_names))
        cfg[self.joint_slots] = q
        return cfg


def demo_arm_path() -> Path:
    """Return the bundled demo arm's URDF, found from the package, not the working directory."""
    try:
        return share_path(DEMO_ARM)
    except URDFError as exc:
        raise URDFError(f'{exc}; give --urdf FILE') from exc


def _missing_meshes(urdf: 'yourdfpy.URDF', path: Path) -> List[str]:
    """Return the visual mesh file names of ``urdf`` that resolve to no file."""
    import yourdfpy
    missing = []
    for link in urdf.robot.links:
        for v in link.visuals:
            mesh = v.geometry.mesh if v.geometry is not None else None
            if mesh is None:
                continue
            found = yourdfpy.filename_handler_magic(mesh.filename, dir=str(path.parent))
            if not os.path.isfile(found):
                missing.append(f'link {link.name!r}: mesh {mesh.filename!r} not found')
    return missing


def load_robot(path: Union[str, 'os.PathLike[str]'], base: Optional[str] = None,
               tip: Optional[str] = None, tips: Sequence[str] = ()) -> RobotModel:
    """
    Load a URDF file for the web view; URDFError with a clear message when it cannot be.

    base defaults to the URDF's root link, tip to the leaf with the most actuated joints above
    it (as for the ik_node node). ``tips``: several tip links, the chain is then the tree
    base -> each of them (a :class:`ik_node.motion.tree_arm.TreeArm`). A missing mesh is not
    fatal: the arm is drawn without it and ``warnings`` says which file is missing.
    """
    import yourdfpy
    path = Path(path)
    if not path.is_file():
        raise URDFError(f'URDF file {str(path)!r} does not exist')
    try:
        bare = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False)
    except Exception as exc:  # noqa: B902  (yourdfpy raises many kinds for bad XML)
        raise URDFError(f'cannot read URDF {str(path)!r}: {exc}') from exc
    try:
        if not (base and (tip or tips)):
            # the same defaults as the ik_node node: the root, and the deepest leaf
            root, leaf = RobotTree.from_urdf(str(path)).default_chain()
            base, tip = base or root, tip or leaf
        if tips:
            from ik_node.motion.tree_arm import TreeArm
            from ik_node.tree import TreeChain
            chain = cast(Chain, TreeArm(TreeChain.from_urdf(str(path), base, list(tips))))
        else:
            assert tip is not None      # the default above
            chain = Chain.from_urdf(str(path), base, tip)
    except URDFError as exc:
        raise URDFError(f'{str(path)!r}: {exc}') from exc
    missing = _missing_meshes(bare, path)
    try:
        urdf = yourdfpy.URDF.load(
            str(path), build_scene_graph=True, load_meshes=True,
            filename_handler=partial(yourdfpy.filename_handler_magic,
                                     dir=str(path.parent)))
    except Exception as exc:  # noqa: B902
        raise URDFError(f'cannot build the visual model of {str(path)!r}: {exc}') from exc
    names = list(urdf.actuated_joint_names)
    slots = []
    for name in chain.joint_names:
        if name not in names:
            raise URDFError(f'joint {name!r} of the chain is not an actuated joint of the '
                            'display model')
        slots.append(names.index(name))
    return RobotModel(chain, urdf, path, np.array(slots, dtype=int), missing)
