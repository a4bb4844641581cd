# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Packaging for ik_node: an ament_python package that also installs with plain pip."""

from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'ik_node'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'bench', 'bench.*']),
    # The packages live at the top of the repository: said so, an editable install (the demo's,
    # the tests') is a plain .pth entry, and setuptools has nothing to warn about.
    package_dir={'': '.'},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        (os.path.join('share', package_name, 'launch'), glob('launch/*.launch.py')),
        (os.path.join('share', package_name, 'config'), glob('config/*.yaml')
         + glob('config/*.rviz')),
        (os.path.join('share', package_name, 'config', 'urdf'), glob('config/urdf/*.urdf')),
    ],
    python_requires='>=3.10',
    # numba compiles the solver kernels (they also run, ~100x slower, without it); its
    # np.linalg support needs SciPy's LAPACK bindings.
    # trimesh reads the URDF's collision meshes (ik_node.collision), on first collision query.
    # The motion layer (ik_node.motion): ruckig computes the jerk-limited profiles the
    # commands follow, ompl plans the collision-free joint paths around obstacles, PyYAML
    # reads joint_limits.yaml files (urdfdom-py and rclpy depend on it too).
    install_requires=['setuptools', 'numpy>=1.22', 'scipy>=1.8', 'numba>=0.57',
                      'urdfdom-py>=1.2', 'trimesh>=4', 'ruckig>=0.12', 'ompl>=2.0',
                      'PyYAML>=5.1',
                      # exact contact of the URDF geometry for the default pair matrix
                      'python-fcl>=0.7'],
    extras_require={
        'test': ['pytest', 'hypothesis'],
        # ik-web, the live browser view (ik_node.web): viser serves the page, yourdfpy and
        # trimesh read the URDF's visual geometry.
        'web': ['viser>=1.0', 'yourdfpy>=0.0.56', 'trimesh>=4.0'],
        # ik-reach: the progress bar and the pictures of a reachability map.
        'reach': ['tqdm', 'matplotlib'],
        # reachability maps on a cluster (ik_node.reach.cluster): Dask distributed.
        'cluster': ['dask[distributed]>=2024.1'],
    },
    zip_safe=True,
    maintainer='ik_node maintainers',
    maintainer_email='maintainers@ik-node.dev',
    description='Inverse kinematics (DLS with null-space objectives, FABRIK) for URDF arms, '
                'as a library and a ROS 2 node.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'ik-solve = ik_node.cli:main',
            'ik-reach = ik_node.reach.cli:main',
            'ik-compile = ik_node.compile:main',
            'ik-web = ik_node.web.app:main',
            'web_view = ik_node.ros.web_view:main',
            'ik_node = ik_node.ros.start:main',
            'sim_arm = ik_node.ros.sim_arm:main',
            'ik_jog_keyboard = ik_node.ros.jog_keyboard:main',
        ],
    },
)
