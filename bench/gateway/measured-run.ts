import { machineCpuSeconds } from '../cpu.ts';
import { type Load, measure } from '../load.ts';
import type { GatewayProcess } from './processes.ts';
import type { MeasuredRun } from './results.ts';

/**
 * Runs `load` and reads the CPU each side used meanwhile, as a share of the run's wall time:
 * the gateway (none for `direct`), the simulator, the load generator and the machine,
 * so that a figure taken while other work used the cores can be told apart.
 */
export async function measureWithCpu(
  load: Load,
  gateway: GatewayProcess | undefined,
  simulator: GatewayProcess,
): Promise<MeasuredRun> {
  const gatewayBefore = gateway?.cpuSeconds();
  const simulatorBefore = simulator.cpuSeconds();
  const machineBefore = machineCpuSeconds();
  const startedAt = performance.now();
  const measured = await measure(load);
  const seconds = (performance.now() - startedAt) / 1000;
  const machineAfter = machineCpuSeconds();
  const share = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : (after - before) / seconds;
  return {
    measured,
    cpu: {
      gateway: share(gatewayBefore, gateway?.cpuSeconds()),
      simulator: share(simulatorBefore, simulator.cpuSeconds()),
      loadGenerator: measured.loadCpuSeconds / seconds,
      machine: share(machineBefore?.busy, machineAfter?.busy),
      steal: share(machineBefore?.steal, machineAfter?.steal),
    },
  };
}
