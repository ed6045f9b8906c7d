import { request } from './client';
import type {
  Account,
  Alert,
  AlertEmailSetting,
  Overview,
  RawMessage,
  Retention,
  AppRetention,
  ApiKey,
  App,
  AuditEntry,
  CreatedKey,
  KeyScope,
  AppInput,
  Decoded,
  Delivery,
  DeliveryStatus,
  Device,
  Explained,
  Flag,
  Message,
  DeviceLabels,
  ModuleDevice,
  ModuleFilter,
  ModuleItem,
  ModuleListPage,
  ModuleListQuery,
  Protocol,
  Registration,
  SessionInfo,
  SessionStatus,
  SignupForm,
  TestCallback,
  WebhookHealth,
} from './types';

const DEV = '/iot/developers';

/** Every API operation the dashboard uses, one function each. */
export const api = {
  /** Whether the cookie holds a session, and whether the server offers sign-up and password reset. */
  sessionStatus: () => request<SessionStatus>(`${DEV}/session.json`, { keepSessionOn401: true }),
  /** Rejects with 401 (wrong password, or not activated) or 404 (no account). */
  signIn: (email: string, password: string) =>
    request<SessionInfo>(`${DEV}/session.json`, { method: 'POST', body: { email, password }, keepSessionOn401: true }),
  signOut: () => request<void>(`${DEV}/session.json`, { method: 'DELETE', read: 'none', keepSessionOn401: true }),
  signUp: (form: SignupForm) => request<void>(`${DEV}/register.json`, { method: 'POST', body: form, read: 'none' }),
  activate: (uuid: string) => request<void>(`${DEV}/activatation/${encodeURIComponent(uuid)}`, { method: 'POST', read: 'none' }),
  forgotPassword: (email: string) => request<void>(`${DEV}/password/forgot.json`, { method: 'POST', body: { email }, read: 'none' }),
  resetPassword: (token: string, password: string, repassword: string) =>
    request<void>(`${DEV}/password/reset.json`, { method: 'POST', body: { token, password, repassword }, read: 'none' }),
  deleteAccount: (email: string) => request<void>('/iot/developers.json', { method: 'DELETE', query: { email }, read: 'none' }),

  keys: () => request<ApiKey[]>(`${DEV}/keys.json`),
  createKey: (name: string, scope: KeyScope, expires: number | null) =>
    request<CreatedKey>(`${DEV}/keys.json`, { method: 'POST', body: { name, scope, expires } }),
  revokeKey: (id: number) => request<ApiKey>(`${DEV}/keys.json`, { method: 'DELETE', query: { id } }),
  audit: (options: { limit?: number; before?: number }) => request<AuditEntry[]>(`${DEV}/audit.json`, { query: options }),

  account: () => request<Account>(`${DEV}/account.json`),
  regenerateToken: () => request<{ token: string }>(`${DEV}/token.json`, { method: 'POST' }),
  updatePassword: (email: string, currentpwd: string, newpwd: string, confirmpwd: string) =>
    // A wrong current password is the spec's 401: an answer to show in the form, not a lost session.
    request<void>(`${DEV}/updatePassword.json`, { method: 'POST', body: { email, currentpwd, newpwd, confirmpwd }, read: 'none', keepSessionOn401: true }),
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
  /** Failed deliveries queued again: those in `ids`, or all of the app's. */
  retryFailed: (id: number, selection: { ids: number[] } | { all_failed: true }) =>
    request<{ requeued: number }>(`${DEV}/apps/${id}/deliveries/retry.json`, { method: 'POST', body: selection }),
  webhookHealth: (id: number) => request<WebhookHealth>(`${DEV}/apps/health.json`, { query: { id } }),
  sendTest: (id: number) => request<TestCallback>(`${DEV}/apps/test.json`, { method: 'POST', query: { id } }),

  register: (modules: { serial: string; key: string }[]) =>
    request<Registration>(`${DEV}/modules.json`, { method: 'POST', body: modules }),
  modules: () => request<ModuleItem[]>(`${DEV}/modules.json`),
  unregister: (id: string, sn: string) => request<void>(`${DEV}/modules.json`, { method: 'DELETE', query: { id, sn }, read: 'none' }),
  rekey: (sn: string, key: string) => request<{ serial: string; key: string }>(`${DEV}/modules/key.json`, { method: 'POST', body: { sn, ...(key && { key }) } }),
  moduleList: (query: ModuleListQuery) => request<ModuleListPage>(`${DEV}/modules/list.json`, { query: { ...query } }),
  attachMatching: (id: number, filter: ModuleFilter) =>
    request<{ attached: number }>(`${DEV}/apps/${id}/modules/attach-matching.json`, { method: 'POST', query: { ...filter } }),
  labels: (sn: string) => request<DeviceLabels[]>(`${DEV}/labels.json`, { query: { sn } }),
  setLabels: (sn: string, labels: { name?: string | null; tags?: string[]; notes?: string | null }) =>
    request<DeviceLabels>(`${DEV}/labels.json`, { method: 'POST', query: { sn }, body: labels }),
  device: (sn: string) => request<ModuleDevice>(`${DEV}/device.json`, { query: { sn } }),
  pacs: () => request<Blob>(`${DEV}/pacs.csv`, { method: 'POST', read: 'blob' }),

  decode: (frame: string, protocol: Protocol) => request<Decoded>(`${DEV}/decode`, { query: { frame, protocol } }),
  explain: (frame: string, protocol: Protocol) => request<Explained>(`${DEV}/decode/explain`, { query: { frame, protocol } }),

  children: (sn: string) => request<Device[]>('/iot/devices/children.json', { query: { sn } }),
  history: (sn: string, options: { amount?: number; until?: number; id?: string }) =>
    request<Message[]>('/iot/devices/msgs/history.json', { query: { sn, ...options } }),
  recents: (sn: string, options: { after?: number; amount?: number; id?: string }) =>
    request<Message[]>('/iot/devices/msgs/recents.json', { query: { sn, ...options } }),
  rawHistory: (sn: string, options: { limit?: number; before?: number }) =>
    request<RawMessage[]>('/iot/devices/msgs/sfx/history.json', { query: { sn, ...options } }),
  overview: () => request<Overview>(`${DEV}/overview.json`),
  /** A module's alerts (its own and its children's), newest first. */
  moduleAlerts: (sn: string, options: { open?: boolean; limit?: number }) => request<Alert[]>(`${DEV}/alerts.json`, { query: { sn, ...options } }),
  alertEmail: () => request<AlertEmailSetting>(`${DEV}/alerts/settings.json`),
  setAlertEmail: (email: boolean) => request<AlertEmailSetting>(`${DEV}/alerts/settings.json`, { method: 'POST', body: { email } }),
  ackAlert: (id: number) => request<unknown>(`${DEV}/alerts/ack.json`, { method: 'POST', query: { id } }),
  retention: (sn: string) => request<Retention>(`${DEV}/modules/retention.json`, { query: { sn } }),
  setRetention: (sn: string, choice: { messages_days: number | null; raw_days: number | null }) =>
    request<Retention>(`${DEV}/modules/retention.json`, { method: 'POST', query: { sn }, body: choice }),
  appRetention: (idApp: number) => request<AppRetention>(`${DEV}/apps/retention.json`, { query: { idApp } }),
  setAppRetention: (idApp: number, choice: { messages_days: number | null; raw_days: number | null }) =>
    request<AppRetention>(`${DEV}/apps/retention.json`, { method: 'POST', query: { idApp }, body: choice }),
  /** Acknowledges every alert of a device (module or child serial): its alerts_ack catches up with alerts. */
  ackAlerts: (sn: string) => request<void>('/iot/developers/alerts/ack.json', { method: 'POST', query: { sn }, read: 'none' }),
  setFlag: (flag: Flag, sn: string, id: string, value: string | boolean) =>
    request<void>(`/iot/devices/${flag}.json`, { method: 'POST', query: { sn, id, value: String(value) }, read: 'none' }),
};
