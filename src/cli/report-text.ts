/** A stored report as plain text for the terminal (`vigil profiler:show`): the same panels as the page, condensed. */
import type { ExceptionSection } from '../profiler/collectors/exception.js';
import type { LogsSection } from '../profiler/collectors/logs.js';
import type { MemorySection } from '../profiler/collectors/memory.js';
import type { PerformanceSection } from '../profiler/collectors/performance.js';
import type { RequestSection } from '../profiler/collectors/request.js';
import type { ResponseSection } from '../profiler/collectors/response.js';
import type { RoutingSection } from '../profiler/collectors/routing.js';
import { formatBytes, formatMs, formatTime } from '../profiler/format.js';
import type { Report } from '../profiler/report.js';

const BUILT_IN = new Set(['request', 'response', 'exception', 'routing', 'performance', 'memory', 'logs']);

function headerLines(headers: Record<string, string | string[]> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) => [value].flat().map((line) => `  ${name}: ${line}`));
}

function section<T>(report: Report, name: string): T | undefined {
  const value = report.collectors[name];
  return typeof value === 'object' && value !== null && !('collectorError' in value) ? (value as T) : undefined;
}

export function reportAsText(report: Report): string {
  const out: string[] = [
    `Report ${report.token}`,
    `  ${report.method} ${report.url}`,
    `  status ${report.status}, ${formatTime(report.time)}, ${formatMs(report.duration)}, client ${report.ip}`,
  ];
  const exception = section<ExceptionSection>(report, 'exception');
  if (exception) {
    out.push('', 'Exception', `  ${exception.class} (${exception.code}, status ${exception.status}): ${exception.message}`);
    if (exception.file) out.push(`  raised at ${exception.file}:${exception.line}`);
    const own = exception.trace.filter((frame) => frame.own);
    if (own.length > 0) out.push('  project frames:', ...own.map((frame) => `    ${frame.function} ${frame.file}:${frame.line}`));
  }
  const routing = section<RoutingSection>(report, 'routing');
  if (routing) {
    out.push('', 'Routing');
    if (routing.matched) {
      out.push(`  route ${routing.matched.name ?? ''} ${routing.matched.path} (${routing.matched.methods.join(', ')})`);
      for (const [name, value] of Object.entries(routing.params ?? {})) out.push(`  param ${name} = ${value}`);
    } else {
      out.push(`  no route matched ${routing.path}; allowed methods: ${routing.allowedMethods?.length ? routing.allowedMethods.join(', ') : 'none'}`);
      if (routing.redirectedTo) out.push(`  redirected to ${routing.redirectedTo}`);
      for (const miss of routing.closest ?? []) out.push(`  closest: ${miss.methods.join('|')} ${miss.path}: ${miss.reason}`);
    }
  }
  const performance = section<PerformanceSection>(report, 'performance');
  if (performance) {
    const stages = Object.entries(performance.stages).map(([stage, ms]) => `${stage} ${formatMs(ms)}`);
    out.push('', 'Performance', `  total ${formatMs(performance.total)}${stages.length ? `: ${stages.join(', ')}` : ''}`);
    if (performance.eventLoopDelay) out.push(`  event-loop delay p99 ${formatMs(performance.eventLoopDelay.p99)}, max ${formatMs(performance.eventLoopDelay.max)}`);
  }
  const memory = section<MemorySection>(report, 'memory');
  if (memory) {
    out.push('', 'Memory', `  heap used ${formatBytes(memory.start?.heapUsed)} -> ${formatBytes(memory.end.heapUsed)}, RSS ${formatBytes(memory.start?.rss)} -> ${formatBytes(memory.end.rss)}, peak RSS ${formatBytes(memory.peakRss)}${memory.pid === undefined ? '' : `, process ${memory.pid}`}`);
  }
  const request = section<RequestSection>(report, 'request');
  if (request) out.push('', `Request (${request.protocol}${request.tls ? `, ${request.tls.version}` : ''})`, ...headerLines(request.headers));
  const response = section<ResponseSection>(report, 'response');
  if (response) out.push('', `Response (${response.status}${response.aborted ? ', client left before it was written' : ''})`, ...headerLines(response.headers));
  const logs = section<LogsSection>(report, 'logs');
  if (logs) {
    out.push('', `Logs (${logs.lines.length + logs.omitted})`);
    for (const line of logs.lines) out.push(`  ${line.level.padEnd(5)} ${line.time === null ? '' : formatTime(line.time)} ${line.message}`);
  }
  for (const [name, value] of Object.entries(report.collectors)) {
    if (!BUILT_IN.has(name) || (typeof value === 'object' && value !== null && 'collectorError' in value)) {
      out.push('', name, ...JSON.stringify(value, null, 2).split('\n').map((line) => `  ${line}`));
    }
  }
  return `${terminalSafe(out.join('\n'))}\n`;
}

/** Control characters (a log message may hold any) would drive the terminal: each becomes U+FFFD. */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '\uFFFD');
}
