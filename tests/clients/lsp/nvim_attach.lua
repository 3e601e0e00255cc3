-- Headless Neovim attaches `graphmem lsp` to a file and writes what it reads back, one line
-- each: HOVER <text>, DIAG <line>:<col> [<source>] <message>, LENS <line>: <title>, then OK
-- (or FAIL: <why>). Works with Debian's nvim 0.7 (start_client) and newer (vim.lsp.start).
--   GM_SERVER_CMD="python -m graphmem lsp" GM_FILE=path GM_LINE=7 GM_CHAR=8 GM_OUT=out.txt \
--   nvim --headless --clean -u NONE -i NONE -c "luafile nvim_attach.lua"
local out = assert(io.open(os.getenv("GM_OUT"), "w"))
local function emit(s) out:write(s, "\n"); out:flush() end
local function fail(msg) emit("FAIL: " .. msg); out:close(); vim.cmd("cquit 1") end

local ok, err = pcall(function()
  local cmd = vim.split(os.getenv("GM_SERVER_CMD"), " ", { trimempty = true })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("GM_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local root = vim.fn.getcwd()
  local attached = false
  local config = {
    name = "graphmem",
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "root" } },
    on_attach = function() attached = true end,
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config, { bufnr = bufnr })
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  if not vim.wait(20000, function() return attached end, 50) then return fail("the server did not attach") end

  -- The server publishes diagnostics once it has read the file's notes from the daemon.
  if not vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50) then
    return fail("no diagnostics")
  end
  local diags = vim.diagnostic.get(bufnr)
  table.sort(diags, function(a, b) return a.lnum < b.lnum end)
  for _, d in ipairs(diags) do
    emit(string.format("DIAG %d:%d [%s] %s", d.lnum, d.col, d.source or "?", d.message:gsub("\n", " | ")))
  end

  local position = { line = tonumber(os.getenv("GM_LINE")), character = tonumber(os.getenv("GM_CHAR")) }
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = position }
  local resps = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
  local resp = resps and resps[client_id]
  if not resp or resp.err or not resp.result then return fail("hover: " .. vim.inspect(resps)) end
  emit("HOVER " .. resp.result.contents.value:gsub("\n", " | "))

  local lens = vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens", { textDocument = params.textDocument }, 10000)
  for _, l in ipairs((lens and lens[client_id] and lens[client_id].result) or {}) do
    emit("LENS " .. l.range.start.line .. ": " .. l.command.title)
  end

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  emit("OK")
end)
if not ok then fail(tostring(err)) end
out:close()
vim.cmd("qall!")
