# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Live browser view of ik_node (``ik-web``): the arm, a draggable target, every solver setting.

Built on viser (3D scene, transform gizmo, GUI controls and plots served from Python), with
yourdfpy/trimesh for the URDF's visual geometry. It is an optional extra:
``pip install ik_node[web]``. Modules: :mod:`.robot` loads the model, :mod:`.controls` holds
the solver settings panel, :mod:`.ik_view` the standalone arm view, :mod:`.fabrik_view` the
point-chain FABRIK playground, :mod:`.app` the server and the ``ik-web`` command. None imports
rclpy: the view driving a running node (``web_view``) is :mod:`ik_node.ros.web_view`.
"""
