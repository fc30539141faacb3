// The login page: exchange an account's token for a session cookie, then go to search.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("login-form");
  const status = document.getElementById("login-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = document.getElementById("login-token").value;
    const response = await Prioris.post("/login", { token });
    if (response.ok) {
      window.location.assign("/");
    } else {
      status.textContent = await Prioris.errorOf(response);
    }
  });
});
