// Skill names suggested as one types, in any input marked data-skill-suggest whose `list`
// names a <datalist>. The field holds comma-separated names: suggestions complete the last
// one and keep the others, so picking one from the list fills in the whole field.
(function () {
  "use strict";
  function attach(input) {
    var list = document.getElementById(input.getAttribute("list"));
    if (!list) return;
    var timer = null, asked = "";
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(suggest, 150);
    });
    function suggest() {
      var value = input.value, cut = value.lastIndexOf(",");
      var before = cut < 0 ? "" : value.slice(0, cut + 1) + " ";
      var fragment = value.slice(cut + 1).trim();
      if (fragment.length < 2 || fragment === asked) return;
      asked = fragment;
      fetch("/api/v1/skills?limit=8&q=" + encodeURIComponent(fragment), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (skills) {
          list.textContent = "";
          skills.forEach(function (skill) {
            var option = document.createElement("option");
            option.value = before.replace(/\s+$/, " ").replace(/^\s+/, "") + skill.name;
            option.label = skill.name + " (" + skill.id + ")";
            list.appendChild(option);
          });
        })
        .catch(function () { /* suggestions are a convenience; typing still works */ });
    }
  }
  document.querySelectorAll("input[data-skill-suggest]").forEach(attach);
})();
