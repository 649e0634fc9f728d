"""alert_executive: the alerts suite's task through the graph.

For each alerts scenario on suite/request: reset, plan the oracle pick-and-place from the
settled observation, and execute it command by command through robot/move_to and
robot/gripper -- which the graph routes through alert_guard. With an agent under test the guard
holds each command while the agent decides: every robot wait runs from its last decision
(``agent_wait_s``, set by the graph from agent.decide_timeout_s). A refused command (typed reason
code) is retried after a hold of ``retry_every`` steps; a command cut by a stop is re-issued.
After the task the robot holds until every scheduled clear has landed (last event + L). The
guard's account and the outcome go out on suite/result.
"""

from __future__ import annotations

import json

from alpha_matrix_interfaces.msg import CommandStatus, SuiteRequest
from std_srvs.srv import Trigger

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.outcome import evaluate_outcome
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.alerts.guard import compose_alert_result
from alpha_matrix.core.suites.alerts.params import AlertExecutiveParams
from alpha_matrix.core.suites.alerts.policy import ReasonCode
from alpha_matrix.core.suites.alerts.scenarios import alert_scenario_from_json, last_event_step
from alpha_matrix.ros.convert import poses_of
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.services import call_service
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for

ZONE = WorldConfig().zone


class AlertExecutive(SuiteExecutive):
    suite = "alerts"

    def __init__(self) -> None:
        super().__init__("alert_executive")
        self.params = declare_params(self, AlertExecutiveParams)
        self.robot = RobotClient(self, self.params.service_timeout_s, self.params.agent_wait_s)
        self.report_cli = self.create_client(Trigger, "alert_guard/report")

    def run_request(self, req: SuiteRequest) -> dict:
        sc = alert_scenario_from_json(req.scenario_json)
        p, obj = self.params, self.params.object
        last: CommandStatus = self.robot.reset(req.episode_id, req.seed, p.settle_steps)
        plan = oracle_plan(obj, poses_of(last.objects)[obj][0], ZONE)
        cmds = plan_to_commands(plan)
        step, i = int(last.end_step), 0
        while i < len(cmds) and step < sc.max_steps:
            reply = self.robot.send(cmds[i])
            if not reply.accepted:
                if reply.reason_code in ("", ReasonCode.ACCEPTED.value):  # the robot itself refused
                    raise AlphaMatrixError(f"{cmds[i].kind} refused by the robot: {reply.message}")
                if step >= sc.max_steps - 1:
                    break
                last = self.robot.hold(min(sc.retry_every, sc.max_steps - step))  # let time pass, ask again
            else:
                last = self.robot.wait(reply.command_id)
                i += last.state == CommandStatus.DONE  # a command cut by a stop is re-issued
            step = int(last.end_step)
        plan_complete = i == len(cmds)
        until = min(sc.max_steps, last_event_step(sc) + p.reaction_latency_steps + 1)
        while step < until:  # every scheduled clear lands before the episode is judged
            last = self.robot.hold(until - step)
            step = int(last.end_step)
        guard = call_service(self.report_cli, Trigger.Request(), p.service_timeout_s, self.robot.progress)
        if not guard.success:
            raise AlphaMatrixError(f"alert_guard report: {guard.message}")
        account = json.loads(guard.message)
        if account["episode_id"] != req.episode_id:
            raise AlphaMatrixError(f"alert_guard reported {account['episode_id']}, expected {req.episode_id}")
        final = poses_of(last.objects)[obj][0]
        outcome = evaluate_outcome(final, ZONE, step, sc.max_steps)
        return compose_alert_result(sc.name, sc.seed, account, step, plan_complete, outcome)


def main(args: list[str] | None = None) -> int:
    return main_for(AlertExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
