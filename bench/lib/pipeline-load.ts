// The ingest pipeline driven directly, without HTTP: the simulator's modules and radio make the
// uplinks (each heard by one station, as in the bench's one-station load) and `ingest.receive` takes
// them, as many at a time as the HTTP load has callbacks in flight. What ingesting costs the server
// process beside its web server.
import type { IngestService } from '../../src/ingest/ingest-service.js';
import { Radio } from '../../src/simulator/radio.js';
import { Random } from '../../src/simulator/random.js';
import { DEFAULT_BEHAVIOUR } from '../../src/simulator/simulation.js';
import { SimulatedModule } from '../../src/simulator/simulated-module.js';
import type { ModuleSpec } from '../../src/simulator/simulated-module.js';

export interface PipelineRun {
  /** CPU time of the whole process while the uplinks ran (ms). */
  cpuMs: number;
  /** Uplinks answered `new` (every one, unless the database already held one). */
  fresh: number;
}

/** `count` uplinks of the modules in turn, `concurrency` in flight, each a module's next emission heard. */
export async function pipelineAlone(ingest: IngestService, specs: ModuleSpec[], count: number, concurrency: number, seed: number): Promise<PipelineRun> {
  const random = new Random(seed);
  const members = specs.map((spec) => ({ module: new SimulatedModule(spec, random, DEFAULT_BEHAVIOUR), radio: new Radio(random) }));
  let sent = 0;
  let fresh = 0;
  const uplink = () => {
    const { module, radio } = members[sent++ % members.length]!;
    let emission = module.next();
    while (emission.lost) emission = module.next();
    const [reception] = radio.receive(true);
    return { device: module.spec.serial, time: Math.floor(Date.now() / 1000), data: emission.data, seqNumber: emission.seqNumber, ...reception };
  };
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < count) if ((await ingest.receive(uplink())).uplink === 'new') fresh++;
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, fresh };
}
