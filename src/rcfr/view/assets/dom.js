// What both pages of rcfr view share, inlined before each page's own script.

// An element: rcfrElement("td", {text: "x", class: "n"}, [child, "text", ...]).
function rcfrElement(tag, attrs, children) {
  var e = document.createElement(tag);
  if (attrs) Object.keys(attrs).forEach(function (k) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "style") e.style.cssText = attrs[k];
    else e.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) {
    e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return e;
}
