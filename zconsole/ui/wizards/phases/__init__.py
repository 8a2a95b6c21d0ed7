"""The wizard's phases, one widget each, shown one at a time by the wizard screen's
ContentSwitcher: choose, preview, force (a second confirmation), confirm (typed), run,
result. Each draws what it is given; the screen decides which phase is shown."""

from zconsole.ui.wizards.phases.choose import ChoosePhase
from zconsole.ui.wizards.phases.confirm import ConfirmPhase
from zconsole.ui.wizards.phases.force import ForcePhase
from zconsole.ui.wizards.phases.preview import PreviewPhase
from zconsole.ui.wizards.phases.result import ResultPhase
from zconsole.ui.wizards.phases.run import RunLog, RunPhase

__all__ = ["ChoosePhase", "ConfirmPhase", "ForcePhase", "PreviewPhase", "ResultPhase",
           "RunLog", "RunPhase"]
