// Workflow interceptors of OpenTelemetry tracing, bundled with the workflows when tracing is on
// (integrations/telemetry/tracing.ts): a span for the workflow run, its signals, queries and updates, and one
// for each activity it schedules, whose context travels in the activity's headers to whichever worker
// (TypeScript or the Python recognizer) takes it. They add no commands, so histories replay the same either way.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptors } from '@temporalio/workflow';

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
