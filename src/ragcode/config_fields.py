"""What every config section is made of: the strict pydantic base (unknown fields are errors,
assignments are validated) and the value ranges, whose violations the one-line messages of
``ragcode.config_parse`` name with the dotted field and the range."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Positive = Annotated[int, Field(gt=0)]
NonNegative = Annotated[int, Field(ge=0)]
PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a fraction of something
Weights = dict[str, NonNegativeFloat]  # multipliers by name


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
