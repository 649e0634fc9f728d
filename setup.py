"""ament_python package: `colcon build` on a ROS 2 install, `pip install -e .` in a plain venv."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "alpha_matrix"
NODES = [
    "sim_bridge", "oracle", "llm_planner", "executive", "episode_runner", "step_consumer", "recorder", "safety_monitor", "chaos",
    "suite_bridge", "skill_confidence", "skill_executive", "alert_source", "alert_guard", "alert_executive", "suite_runner",
    "proximity_bridge", "proximity_detector", "proximity_executive",
]

setup(
    name=PACKAGE,
    version="0.1.0",
    package_dir={"": "src"},
    packages=find_packages("src"),
    package_data={PACKAGE: ["py.typed"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.launch.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml")),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    entry_points={
        "console_scripts": [f"{n} = {PACKAGE}.nodes.{n}:main" for n in NODES]
        + [f"alpha-matrix = {PACKAGE}.cli:main"],
    },
)
