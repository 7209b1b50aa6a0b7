"""What crosses between the TypeScript activities and this worker: JSON objects (plans, words, segments, results).

Their shapes are the TypeScript side's (workflows/, activities/); here they are typed as JSON objects and read by key.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
