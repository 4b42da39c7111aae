"""The HTML report's style sheet and its one script (sorting, downloads, sentence browser).

The script is inline and allowed by its hash in the page's Content-Security-Policy
(:func:`gecscope.reports.html.script_hash`): keep it free of anything that must differ from
page to page; the page's data comes in ``<script type="application/json">`` blocks, which
are not run. The sentence browser starts only on a page that has sentence data.
"""

from __future__ import annotations

CSS = """
:root{--tp:%(tp)s;--fpne:%(fp_ne)s;--fpun:%(fp_un)s;--fn:%(fn)s;--fg:#222;--muted:#666}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
margin:0 auto;max-width:1200px;padding:0 16px 40px}
header{border-bottom:1px solid #ddd;margin-bottom:12px}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #eee}
h3{font-size:15px;margin:16px 0 6px}small,.meta,.ci,.sig{color:var(--muted)}
nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th[scope=row],thead th:first-child{text-align:left}thead th{background:#f5f5f5;cursor:pointer}
td.best{font-weight:600}td.empty{color:#bbb}
.typetable td{min-width:42px}.scroll{overflow-x:auto}
.sig code{word-break:break-all}summary h3{display:inline-block;cursor:pointer}
.sigmatrix td.sig-better{background:#d9f0d3}.sigmatrix td.sig-worse{background:#fbd5d5}
.sigmatrix td.not-sig{color:var(--muted)}
#controls{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid #eee;z-index:1}
#controls label{margin-right:12px}#controls input[type=search]{width:220px}
.legend span{display:inline-block;margin-right:12px}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.card{border:1px solid #e3e3e3;border-radius:6px;padding:8px 10px;margin:10px 0}
.card .idx{color:var(--muted);font-size:12px}
.line{margin:3px 0;display:flex;gap:8px}.line .lab{flex:0 0 110px;color:var(--muted);
text-align:right;font-size:12px;padding-top:2px;overflow:hidden;text-overflow:ellipsis}
.line .txt{flex:1;word-wrap:break-word}.line .sc{color:var(--muted);font-size:12px;white-space:nowrap}
.e{border-radius:3px;padding:0 2px;margin:0 1px}
.e del{text-decoration:line-through;opacity:.75}.e ins{text-decoration:none;font-weight:600}
.e.tp{background:color-mix(in srgb,var(--tp) 22%%,white);border-bottom:2px solid var(--tp)}
.e.fp_ne{background:color-mix(in srgb,var(--fpne) 22%%,white);border-bottom:2px solid var(--fpne)}
.e.fp_un{background:color-mix(in srgb,var(--fpun) 20%%,white);border-bottom:2px solid var(--fpun)}
.e.fn{padding:0;margin:0;border-radius:0;cursor:help}
.e.fn::after{content:attr(data-n);vertical-align:super;line-height:0;font-size:10px;font-weight:600;
color:var(--fn);border:1px dashed var(--fn);border-radius:3px;padding:0 2px;margin-left:1px}
.fn-span{text-decoration:underline dotted var(--fn);text-decoration-thickness:2px;text-underline-offset:3px}
.legend .fn-sample::after{content:'1'}
.e.ref{background:#eee;border-bottom:2px solid #aaa}
.e.edit{background:#f3f3f3;border-bottom:2px solid #999}
.e.attr.helped{border-bottom:2px solid var(--tp)}.e.attr.hurt{border-bottom:2px solid var(--fpun)}
.e.attr.neutral{border-bottom:2px solid #999}
.e.dim{opacity:.35}
#pager{margin:10px 0}#pager button{margin-right:6px}
.sigmatrix .dir{font-size:11px}.dl-group{margin-left:8px;white-space:nowrap}
.dl{font-size:11px;padding:0 6px;margin-right:3px;cursor:pointer}
.typetable .cnt{color:var(--muted);font-size:11px;margin-left:4px}
.typetable td.zero{color:#aaa}.zero-types summary{cursor:pointer;color:var(--muted);margin:4px 0}
"""

JS = r"""(function(){
'use strict';
var $=function(id){return document.getElementById(id);};
function json(id){var el=$(id);return el?JSON.parse(el.textContent):null;}
var D=json('gecscope-data'),X=json('gecscope-exports')||{};
var PAGE=25,page=0,matches=[],colourBy=D&&(D.attributed||[]).length?0:-1;
function esc(s){return String(s).replace(/[&<>"]/g,function(c){
  return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function applyEdits(toks,edits){ // hypothesis text from source tokens + its (non-FN) edits
  var out=[],pos=0;edits.forEach(function(e){if(e[4]===3||e[0]<pos)return;
    out=out.concat(toks.slice(pos,e[0]));if(e[2])out.push(e[2]);pos=e[1];});
  return out.concat(toks.slice(pos)).join(' ');}
function signed(v){var a=Math.abs(v);
  return (v>0?'+':v<0?'−':'±')+(a>=0.001||a===0?a.toFixed(4):a.toExponential(2));}
function shareColour(v,m){ // green: the edit raised the metric, red: it lowered it
  var top=(D.attribution_scale||[])[m]||0,a=top>0?0.15+0.65*Math.min(1,Math.abs(v)/top):0;
  if(v>0)return 'rgba(26,152,80,'+a.toFixed(3)+')';if(v<0)return 'rgba(214,39,40,'+a.toFixed(3)+')';
  return 'rgba(128,128,128,0.15)';}
function fnTip(toks,e){return 'FN (missed) · '+D.types[e[3]]+': '+(toks.slice(e[0],e[1]).join(' ')||'∅')+' → '+(e[2]||'∅');}
function fnMark(toks,e,n,flt){ // a missed edit: an empty span, its number drawn by CSS (no text)
  var tip=fnTip(toks,e),dim=flt&&!flt(e)?' dim':'';
  return '<span class="e fn'+dim+'" data-outcome="fn" data-type="'+esc(D.types[e[3]])+'" data-n="'+n+
    '" title="'+esc(tip)+'" aria-label="'+esc(tip)+'"></span>';}
function badge(toks,e,kind,flt){ // one edit as a coloured span
  var s=e[0],t=e[1],cor=e[2],type=D.types[e[3]];
  var oc=kind==='ref'?'ref':e[4]<0?'edit':D.outcomes[e[4]];
  var orig=toks.slice(s,t).join(' ');
  var tip=(kind==='ref'||e[4]<0?'':D.outcome_labels[e[4]]+' · ')+type+': '+(orig||'∅')+' → '+(cor||'∅');
  var shares=kind==='ref'?null:e[5],attr='',style='';
  if(shares){shares.forEach(function(v,m){if(v!==null)tip+=' · '+D.attributed[m]+' share '+signed(v)+
    ' ('+D.attribution_methods[m]+')';});
    if(colourBy>=0&&shares[colourBy]!==null&&shares[colourBy]!==undefined){var v=shares[colourBy];
      attr=' attr '+(v>0?'helped':v<0?'hurt':'neutral');
      style=' style="background:'+shareColour(v,colourBy)+'" data-attribution="'+v+'"';}}
  var dim=flt&&!flt(e)?' dim':'';
  var body=(orig?'<del>'+esc(orig)+'</del>':'')+(orig&&cor?' ':'')+(cor?'<ins>'+esc(cor)+'</ins>':'');
  return '<span class="e '+oc+attr+dim+'" data-outcome="'+oc+'" data-type="'+esc(type)+'" title="'+esc(tip)+'"'+style+'>'+body+'</span>';}
function render(toks,edits,kind,flt){ // kind: 'hyp' (coloured by outcome) or 'ref'
  // The line reads as the text: source words and the (non-FN) edits drawn over them. A
  // missed edit (FN) adds no text: the words it should have changed are underlined and a
  // numbered mark follows them (after the insertion point for a missing word), the
  // correction in its tooltip.
  var ev=edits.slice().sort(function(a,b){return a[0]-b[0]||a[1]-b[1];});
  var shown=[],fns=[],pos=0,n=toks.length;
  ev.forEach(function(e){if(kind==='hyp'&&e[4]===3){fns.push(e);return;}
    if(e[0]<pos)return;shown.push(e);pos=e[1];});
  fns.sort(function(a,b){return a[1]-b[1]||a[0]-b[0];}); // by where the mark goes
  var under=[];fns.forEach(function(e){for(var i=e[0];i<e[1];i++)if(under[i]===undefined)under[i]=e;});
  var out=[],k=0,f=0;pos=0;
  function flush(){var m='';while(f<fns.length&&fns[f][1]<=pos){m+=fnMark(toks,fns[f],f+1,flt);f++;}
    if(m){if(out.length)out[out.length-1]+=m;else out.push(m);}}
  flush();
  while(pos<n||k<shown.length){
    if(k<shown.length&&(shown[k][0]<=pos||pos>=n)){var e=shown[k++];out.push(badge(toks,e,kind,flt));
      pos=Math.max(pos,e[1]);flush();continue;}
    var u=under[pos],w=esc(toks[pos]);
    out.push(u?'<span class="fn-span" title="'+esc(fnTip(toks,u))+'">'+w+'</span>':w);pos++;flush();}
  while(f<fns.length){pos=fns[f][1];flush();}
  return out.join(' ');}
function filters(){
  var sys=$('f-system').value,oc=$('f-outcome').value,ty=$('f-type').value;
  return {sys:sys===''?null:+sys,oc:oc===''?null:+oc,ty:ty===''?null:+ty,
    q:$('f-search').value.trim().toLowerCase()};}
function editOk(f){return function(e){return (f.oc===null||e[4]===f.oc)&&(f.ty===null||e[3]===f.ty);};}
function visibleSystems(f){var out=[];D.systems.forEach(function(_,k){
  if(f.sys===null||f.sys===k)out.push(k);});return out;}
function matchesSentence(s,f){
  var ok=editOk(f),syss=visibleSystems(f);
  if(f.oc!==null||f.ty!==null){
    if(!syss.some(function(k){var x=s[2][k];return x&&x[2].some(ok);}))return false;}
  if(f.q){var toks=s[0].split(' ');
    var hay=[s[0]].concat(s[1].map(function(r){return r[2]?r[2]:applyEdits(toks,r[1].map(function(e){
      return [e[0],e[1],e[2],e[3],0];}));}));
    syss.forEach(function(k){var x=s[2][k];if(x)hay.push(x[0]!==null?x[0]:applyEdits(toks,x[2]));});
    if(hay.join('\n').toLowerCase().indexOf(f.q)<0)return false;}
  return true;}
function card(i,f){
  var s=D.sentences[i],toks=s[0].split(' '),ok=(f.oc!==null||f.ty!==null)?editOk(f):null;
  var h=['<div class="card" data-index="'+i+'"><div class="idx">sentence '+(i+1)+'</div>'];
  h.push('<div class="line src"><span class="lab">source</span><span class="txt">'+esc(s[0])+'</span></div>');
  s[1].forEach(function(r){h.push('<div class="line ref"><span class="lab">reference '+r[0]+
    '</span><span class="txt">'+(r[2]?esc(r[2]):render(toks,r[1],'ref',null))+'</span></div>');});
  visibleSystems(f).forEach(function(k){var x=s[2][k];if(!x)return;
    var sc=x[3].map(function(v,m){return v===null||v===undefined?'':D.metrics[m]+' '+v.toFixed(3);})
      .filter(Boolean).join(' · ');
    var nonfn=x[2].some(function(e){return e[4]!==3;});
    var txt=(x[0]!==null&&!nonfn)?esc(x[0])+x[2].map(function(e,j){return fnMark(toks,e,j+1,ok);}).join('')
      :render(toks,x[2],'hyp',ok);
    h.push('<div class="line hyp" data-system="'+esc(D.systems[k])+'"><span class="lab" title="'+
      esc(D.systems[k])+(x[1]!==null?' (vs reference '+x[1]+')':'')+'">'+esc(D.systems[k])+
      '</span><span class="txt">'+txt+'</span><span class="sc">'+esc(sc)+'</span></div>');});
  h.push('</div>');return h.join('');}
function legend(){var a=$('attr-legend'),o=$('outcome-legend');if(!a||!o)return;
  a.hidden=colourBy<0;o.hidden=colourBy>=0;
  if(colourBy>=0)$('attr-metric').textContent=D.attributed[colourBy];}
function update(resetPage){
  var f=filters();if(resetPage)page=0;
  matches=[];for(var i=0;i<D.sentences.length;i++)if(matchesSentence(D.sentences[i],f))matches.push(i);
  var pages=Math.max(1,Math.ceil(matches.length/PAGE));if(page>=pages)page=pages-1;
  var shown=matches.slice(page*PAGE,(page+1)*PAGE);
  $('sentences-list').innerHTML=shown.map(function(i){return card(i,f);}).join('');
  $('match-count').textContent=matches.length+' of '+D.sentences.length+' sentences';
  $('page-info').textContent='page '+(page+1)+' of '+pages;
  $('prev').disabled=page===0;$('next').disabled=page>=pages-1;}
function init(){
  var sel=$('f-system');D.systems.forEach(function(s,k){var o=document.createElement('option');
    o.value=k;o.textContent=s;sel.appendChild(o);});
  var ty=$('f-type');D.types.map(function(t,k){return [t,k];}).sort(function(a,b){
    return a[0]<b[0]?-1:a[0]>b[0]?1:0;}).forEach(function(p){
    var o=document.createElement('option');o.value=p[1];o.textContent=p[0];ty.appendChild(o);});
  var oc=$('f-outcome');D.outcome_labels.forEach(function(l,k){var o=document.createElement('option');
    o.value=k;o.textContent=l;oc.appendChild(o);});
  var cb=$('f-colour');if(cb){(D.attributed||[]).forEach(function(m,k){var o=document.createElement('option');
    o.value=k;o.textContent=m+' attribution ('+D.attribution_methods[k]+')';cb.appendChild(o);});
    cb.value=String(colourBy);cb.addEventListener('change',function(){colourBy=+cb.value;legend();update(false);});}
  legend();
  ['f-system','f-outcome','f-type'].forEach(function(id){$(id).addEventListener('change',function(){update(true);});});
  $('f-search').addEventListener('input',function(){update(true);});
  $('prev').addEventListener('click',function(){page--;update(false);});
  $('next').addEventListener('click',function(){page++;update(false);});
  update(true);}
function sortable(){Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){
  Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,col){th.addEventListener('click',function(){
    var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),num=th.dataset.sort==='num';
    var dir=th.dataset.dir==='desc'?1:-1;th.dataset.dir=dir===1?'asc':'desc';
    rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];
      var u=num?parseFloat(x.dataset.v||x.textContent):x.textContent,v=num?parseFloat(y.dataset.v||y.textContent):y.textContent;
      if(num){u=isNaN(u)?-Infinity:u;v=isNaN(v)?-Infinity:v;}
      return (u<v?-1:u>v?1:0)*dir;});
    rows.forEach(function(r){body.appendChild(r);});});});});}
// Downloads: the tables' CSV and LaTeX were written when the page was built (X); a figure
// is its own inline SVG, serialised as it is (it carries its style).
function svgText(id){var s=$(id);if(!s||s.tagName.toLowerCase()!=='svg')return null;
  return '<?xml version="1.0" encoding="UTF-8"?>\n'+new XMLSerializer().serializeToString(s)+'\n';}
function exportText(key,format){var t=X[key];return t?t[format]:null;}
function save(name,mime,text){var url=URL.createObjectURL(new Blob([text],{type:mime}));
  var a=document.createElement('a');a.href=url;a.download=name;a.hidden=true;document.body.appendChild(a);
  a.click();document.body.removeChild(a);setTimeout(function(){URL.revokeObjectURL(url);},60000);}
function download(b){
  if(b.dataset.svg){var svg=svgText(b.dataset.svg);if(svg)save('gecscope-'+b.dataset.svg+'.svg','image/svg+xml',svg);return;}
  var t=X[b.dataset.export];if(!t)return;var csv=b.dataset.format==='csv';
  save(t.name+(csv?'.csv':'.tex'),csv?'text/csv;charset=utf-8':'text/x-tex;charset=utf-8',csv?t.csv:t.latex);}
document.addEventListener('click',function(ev){var b=ev.target.closest?ev.target.closest('button.dl'):null;
  if(b)download(b);});
sortable();if(D)init();
if(location.hash){var target=$(location.hash.slice(1));if(target)target.scrollIntoView();}
window.gecscopeReport={update:D?update:null,matches:function(){return matches.slice();},
  exportText:exportText,svgText:svgText,exports:function(){return Object.keys(X);}};
})();
"""
