import json,sys,glob,collections
import os; f=max(glob.glob('/tmp/uplink-prof/*.cpuprofile'), key=os.path.getsize)
p=json.load(open(f))
nodes={n['id']:n for n in p['nodes']}
self_t=collections.Counter()
dt=p['timeDeltas']; samples=p['samples']
for s,d in zip(samples,dt): self_t[s]+=d
agg=collections.Counter()
for nid,t in self_t.items():
    cf=nodes[nid]['callFrame']
    key=f"{cf['functionName'] or '(anon)'} {cf['url'].split('/')[-1]}:{cf['lineNumber']}"
    agg[key]+=t
tot=sum(agg.values())
for k,v in agg.most_common(40): print(f"{v/tot*100:5.1f}% {k}")
