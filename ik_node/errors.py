# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Exception tree of ik_node: every error the package raises derives from IKError.

Warnings (something the caller should review, nothing was refused) derive from IKWarning.
"""

__all__ = ['IKError', 'URDFError', 'IKInputError', 'IKWarning', 'CollisionModelWarning',
           'JointLimitsError']


class IKError(Exception):
    """Root of all ik_node errors."""


class URDFError(IKError, ValueError):
    """The URDF cannot give a usable chain: malformed XML, missing link, bad joint, no DOF."""


class IKInputError(IKError, ValueError):
    """A call was misused: wrong shape, NaN or Inf, an unknown method or an invalid option."""


class JointLimitsError(IKInputError):
    """
    Joint limits are not usable: a bad joint_limits file, value, default or scale.

    The message names the joint and the field at fault (``max_acceleration of joint
    'elbow_joint' ...``), or the file when it cannot be read at all.
    """


class IKWarning(UserWarning):
    """Root of all ik_node warnings."""


class CollisionModelWarning(IKWarning):
    """The collision model has a checked pair that its bounds put in contact at every sample."""
