import { basic, request } from './client';
import type {
  Account,
  App,
  AppInput,
  Decoded,
  Delivery,
  DeliveryStatus,
  Device,
  Explained,
  Flag,
  Message,
  ModuleDevice,
  ModuleItem,
  Protocol,
  Registration,
} from './types';

const DEV = '/iot/developers';

/** Every API operation the dashboard uses, one function each. */
export const api = {
  /** Checks email and password: resolves, or rejects with 401 (wrong password) / 404 (no account). */
  authenticate: (email: string, password: string) =>
    request<void>('/security/authentication', { authorization: basic(email, password), read: 'none' }),
  accountWith: (email: string, password: string) => request<Account>(`${DEV}/account.json`, { authorization: basic(email, password) }),

  account: () => request<Account>(`${DEV}/account.json`),
  regenerateToken: () => request<{ token: string }>(`${DEV}/token.json`, { method: 'POST' }),
  updatePassword: (email: string, currentpwd: string, newpwd: string, confirmpwd: string) =>
    request<void>(`${DEV}/updatePassword.json`, { method: 'POST', body: { email, currentpwd, newpwd, confirmpwd }, read: 'none' }),
  registerGit: (email: string, gitAlias: string) =>
    request<void>(`${DEV}/registerGit.json`, { method: 'POST', body: { email, gitAlias }, read: 'none' }),

  apps: () => request<App[]>(`${DEV}/apps.json`),
  saveApp: (app: AppInput) => request<App>(`${DEV}/apps.json`, { method: 'POST', body: app }),
  deleteApp: (id: number) => request<void>(`${DEV}/apps.json`, { method: 'DELETE', query: { id }, read: 'none' }),
  appModules: (id: number) => request<ModuleItem[]>(`${DEV}/apps/${id}/modules.json`),
  attach: (id: number, serials: string[]) =>
    request<void>(`${DEV}/apps/${id}/modules/attach.json`, { method: 'POST', body: { serials }, read: 'none' }),
  detach: (id: number, serials: string[]) =>
    request<void>(`${DEV}/apps/${id}/modules/detach.json`, { method: 'POST', body: { serials }, read: 'none' }),
  deliveries: (id: number, options: { limit?: number; before?: number; status?: DeliveryStatus }) =>
    request<Delivery[]>(`${DEV}/apps/${id}/deliveries.json`, { query: options }),
  retryDelivery: (id: number, deliveryId: number) =>
    request<Delivery>(`${DEV}/apps/${id}/deliveries/${deliveryId}/retry.json`, { method: 'POST' }),

  register: (modules: { serial: string; key: string }[]) =>
    request<Registration>(`${DEV}/modules.json`, { method: 'POST', body: modules }),
  modules: () => request<ModuleItem[]>(`${DEV}/modules.json`),
  unregister: (id: string, sn: string) => request<void>(`${DEV}/modules.json`, { method: 'DELETE', query: { id, sn }, read: 'none' }),
  device: (sn: string) => request<ModuleDevice>(`${DEV}/device.json`, { query: { sn } }),
  pacs: () => request<Blob>(`${DEV}/pacs.csv`, { method: 'POST', read: 'blob' }),

  decode: (frame: string, protocol: Protocol) => request<Decoded>(`${DEV}/decode`, { query: { frame, protocol } }),
  explain: (frame: string, protocol: Protocol) => request<Explained>(`${DEV}/decode/explain`, { query: { frame, protocol } }),

  children: (sn: string) => request<Device[]>('/iot/devices/children.json', { query: { sn } }),
  history: (sn: string, options: { amount?: number; until?: number; id?: string }) =>
    request<Message[]>('/iot/devices/msgs/history.json', { query: { sn, ...options } }),
  recents: (sn: string, options: { after?: number; amount?: number; id?: string }) =>
    request<Message[]>('/iot/devices/msgs/recents.json', { query: { sn, ...options } }),
  setFlag: (flag: Flag, sn: string, id: string, value: string | boolean) =>
    request<void>(`/iot/devices/${flag}.json`, { method: 'POST', query: { sn, id, value: String(value) }, read: 'none' }),
};
