"""ament_python package: `colcon build` on a ROS 2 install, `pip install -e .` in a plain venv."""

from glob import glob
from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "alpha_matrix"
NODES = [
    "sim_bridge",
    "oracle",
    "llm_planner",
    "executive",
    "episode_runner",
    "step_consumer",
    "recorder",
    "safety_monitor",
    "chaos",
    "suite_bridge",
    "skill_confidence",
    "skill_executive",
    "alert_source",
    "alert_guard",
    "alert_executive",
    "suite_runner",
    "proximity_bridge",
    "proximity_detector",
    "proximity_executive",
    "gauge_executive",
    "gauge_reader",
    "refusal_executive",
    "injection_executive",
    "scene_bridge",
    "ambiguity_executive",
    "hazard_executive",
    "arm_adapter",
    "standard_arm",
    "scene_markers",
    "agent",
    "proximity_agent_link",
    "foxglove_live",
]

# All of config/ (parameters, graphs, scenarios, prompts), sub-folders kept, for `colcon build`.
CONFIG_FILES = [
    (f"share/{PACKAGE}/{folder}", sorted(glob(f"{folder}/*.*")))
    for folder in sorted({str(Path(f).parent) for f in glob("config/**/*.*", recursive=True)})
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
    ]
    + CONFIG_FILES,
    install_requires=["setuptools"],
    zip_safe=False,
    entry_points={
        "console_scripts": [f"{n} = {PACKAGE}.nodes.{n}:main" for n in NODES] + [f"alpha-matrix = {PACKAGE}.cli:main"],
    },
)
