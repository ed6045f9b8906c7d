import { Type } from 'typebox';
import type { DeviceLabels } from '../../domain/label-service.js';
import type { ModuleListPage, ModuleListQuery } from '../../domain/module-list.js';

const Health = Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] });

export const ModuleRowSchema = Type.Object({
  id: Type.String({ description: "the module's device id, as modules.json gives it" }),
  serial: Type.String(),
  protocol: Type.String({ enum: ['UDM22', 'UDM23'] }),
  name: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  lastseen: Type.Union([Type.Integer({ description: 'epoch ms' }), Type.Null()]),
  battery: Health,
  level: Health,
  network: Health,
  active: Type.Boolean(),
  watched: Type.Boolean(),
  msgs: Type.Integer(),
  losts: Type.Integer(),
  alerts: Type.Integer({ description: 'open alerts of the module and its children' }),
  children: Type.Integer(),
});

export const ModuleListPageSchema = Type.Object({
  total: Type.Integer({ description: 'modules matching the filter, over every page' }),
  offset: Type.Integer(),
  limit: Type.Integer(),
  modules: Type.Array(ModuleRowSchema),
});

export const LabelsSchema = Type.Object({
  serial: Type.String({ description: '<module serial>, or <module serial>/<index> behind a gateway' }),
  index: Type.Integer(),
  name: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  notes: Type.Union([Type.String(), Type.Null()]),
});

export function presentModuleListPage(page: ModuleListPage, query: ModuleListQuery) {
  return {
    total: page.total,
    offset: query.offset,
    limit: query.limit,
    modules: page.modules.map((m) => ({ ...m, id: String(m.id), lastseen: m.lastseen === null ? null : m.lastseen.getTime() })),
  };
}

export const presentLabels = (labels: DeviceLabels) => ({
  serial: labels.serial,
  index: labels.index,
  name: labels.name,
  tags: labels.tags,
  notes: labels.notes,
});
