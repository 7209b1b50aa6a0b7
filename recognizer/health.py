"""`python -m recognizer health`: the recognizer container's health check (docker-compose.yml).

Healthy when a recognition worker of this host (the SDK's default identity is
`<pid>@<hostname>`) polled the recognition task queue for activity tasks within
the last POLLER_FRESH_SECONDS, as the Temporal server sees it (the same rule as
worker/health-check.ts and GET /readyz/workers of the API).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time

from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

POLLER_FRESH_SECONDS = 75


async def local_pollers() -> int:
    address = os.environ.get("TEMPORAL_ADDRESS", "").strip() or "127.0.0.1:7233"
    namespace = os.environ.get("TEMPORAL_NAMESPACE", "").strip() or "default"
    task_queue = os.environ.get("RECOGNITION_TASK_QUEUE", "").strip() or "recognition"
    client = await Client.connect(address, namespace=namespace)
    res = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=namespace,
            task_queue=TaskQueue(name=task_queue, kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        )
    )
    since = time.time() - POLLER_FRESH_SECONDS
    suffix = f"@{socket.gethostname()}"
    mine = {p.identity for p in res.pollers if p.identity.endswith(suffix) and p.last_access_time.ToSeconds() >= since}
    print(f"task queue {task_queue}: {len(mine)} activity poller(s) of {socket.gethostname()} within {POLLER_FRESH_SECONDS} s")
    return len(mine)


def health() -> int:
    try:
        return 0 if asyncio.run(local_pollers()) > 0 else 1
    except Exception as err:  # any failure is "unhealthy", said in one line
        print(f"health check failed: {err}")
        return 1
