local M = {}

function M.pub(a) end
function M:method() end
local function helper()
  local function inner() end
end
function global() end
M.assigned = function() end
local anon = function() end
return M
